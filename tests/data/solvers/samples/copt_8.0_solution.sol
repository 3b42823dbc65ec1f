# Objective value -21.5
x         4
y         3
z         1
v         3
w         2
u         0
