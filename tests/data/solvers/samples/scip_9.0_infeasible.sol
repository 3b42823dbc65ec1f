no solution available
