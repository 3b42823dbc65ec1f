Model status
Infeasible

# Primal solution values
None

# Dual solution values
None

# Basis
HiGHS v1
None
