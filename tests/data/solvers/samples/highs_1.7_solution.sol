Model status
Optimal

# Primal solution values
Feasible
Objective -21.5
# Columns 6
x 4
y 3
z 1
v 3
w 2
u 0
# Rows 5
c1 8
c2 -2
c3 6
c4 3
c5 6

# Dual solution values
None

# Basis
HiGHS v1
None
