objective value:                                -21.5
z                                                   1 	(obj:-4)
x                                                   4 	(obj:-3)
v                                                   3 	(obj:-0.5)
y                                                   3 	(obj:-2)
w                                                   2 	(obj:1)
