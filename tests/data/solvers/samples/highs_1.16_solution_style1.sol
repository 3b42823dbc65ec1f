Columns
    Index Status        Lower        Upper       Primal         Dual  Type        Name
        0                   0           10            4               Integer     x
        1                  -5            5            3               Continuous  y
        2                   0            1            1               Integer     z
        3                  -3            3            3               Integer     v
        4                -inf          inf            2               Continuous  w
        5                -inf            4            0               Continuous  u
Rows
    Index Status        Lower        Upper       Primal         Dual  Name
        0                -inf            8            8               c1
        1                  -2          inf           -2               c2
        2                   1            6            6               c3
        3                   3            3            3               c4
        4                -inf          9.5            6               c5

Model status: Optimal

Objective value: -21.5
Objective bound: -21.5
MIP rel gap: 0%
