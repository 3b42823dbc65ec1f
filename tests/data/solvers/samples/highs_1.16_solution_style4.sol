Model status
Optimal

# Primal solution values
Feasible
Objective -21.5
Objective_bound -21.5
MIP_rel_gap 0
# Columns -5 sparse
x 4 0
y 3 1
z 1 2
v 3 3
w 2 4
