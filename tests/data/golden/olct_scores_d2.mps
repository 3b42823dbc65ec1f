NAME olct FREE
ROWS
 N  OBJ
 E  assign_0
 E  assign_1
 E  assign_2
 E  score_0_0
 E  score_0_1
 E  score_0_2
 E  score_1_0
 E  score_1_1
 E  score_1_2
 E  score_2_0
 E  score_2_1
 E  score_2_2
 L  route_l_0_0
 L  route_l_0_1
 L  route_l_0_2
 G  route_r_0_0
 G  route_r_0_1
 G  route_r_0_2
 G  loss_0_0_0
 G  loss_0_0_1
 G  loss_0_0_2
 G  loss_0_1_0
 G  loss_0_1_1
 G  loss_0_1_2
 G  loss_0_2_0
 G  loss_0_2_1
 G  loss_0_2_2
 G  loss_0_3_0
 G  loss_0_3_1
 G  loss_0_3_2
 G  loss_1_0_0
 G  loss_1_0_1
 G  loss_1_0_2
 G  loss_1_1_0
 G  loss_1_1_1
 G  loss_1_1_2
 G  loss_1_2_0
 G  loss_1_2_1
 G  loss_1_2_2
 G  loss_1_3_0
 G  loss_1_3_1
 G  loss_1_3_2
 G  loss_2_0_0
 G  loss_2_0_1
 G  loss_2_0_2
 G  loss_2_1_0
 G  loss_2_1_1
 G  loss_2_1_2
 G  loss_2_2_0
 G  loss_2_2_1
 G  loss_2_2_2
 G  loss_2_3_0
 G  loss_2_3_1
 G  loss_2_3_2
 E  l1_0_0
 E  l1_0_1
 E  l1_1_0
 E  l1_1_1
 E  l1_2_0
 E  l1_2_1
COLUMNS
    w_0_0     score_0_0  0.11624763874381934
    w_0_0     score_0_1  -1.278724026182012
    w_0_0     score_0_2  1.162476387438193
    w_0_0     l1_0_0    1
    w_0_1     score_0_0  1.3074028933658497
    w_0_1     score_0_1  -0.1867718419094071
    w_0_1     score_0_2  -1.1206310514564426
    w_0_1     l1_0_1    1
    w_1_0     score_1_0  0.11624763874381934
    w_1_0     score_1_1  -1.278724026182012
    w_1_0     score_1_2  1.162476387438193
    w_1_0     l1_1_0    1
    w_1_1     score_1_0  1.3074028933658497
    w_1_1     score_1_1  -0.1867718419094071
    w_1_1     score_1_2  -1.1206310514564426
    w_1_1     l1_1_1    1
    w_2_0     score_2_0  0.11624763874381934
    w_2_0     score_2_1  -1.278724026182012
    w_2_0     score_2_2  1.162476387438193
    w_2_0     l1_2_0    1
    w_2_1     score_2_0  1.3074028933658497
    w_2_1     score_2_1  -0.1867718419094071
    w_2_1     score_2_2  -1.1206310514564426
    w_2_1     l1_2_1    1
    b_0       score_0_0  -1
    b_0       score_0_1  -1
    b_0       score_0_2  -1
    b_1       score_1_0  -1
    b_1       score_1_1  -1
    b_1       score_1_2  -1
    b_2       score_2_0  -1
    b_2       score_2_1  -1
    b_2       score_2_2  -1
    w_pos_0_0  OBJ       1
    w_pos_0_0  l1_0_0    -1
    w_pos_0_1  OBJ       1
    w_pos_0_1  l1_0_1    -1
    w_pos_1_0  OBJ       1
    w_pos_1_0  l1_1_0    -1
    w_pos_1_1  OBJ       1
    w_pos_1_1  l1_1_1    -1
    w_pos_2_0  OBJ       1
    w_pos_2_0  l1_2_0    -1
    w_pos_2_1  OBJ       1
    w_pos_2_1  l1_2_1    -1
    w_neg_0_0  OBJ       1
    w_neg_0_0  l1_0_0    1
    w_neg_0_1  OBJ       1
    w_neg_0_1  l1_0_1    1
    w_neg_1_0  OBJ       1
    w_neg_1_0  l1_1_0    1
    w_neg_1_1  OBJ       1
    w_neg_1_1  l1_1_1    1
    w_neg_2_0  OBJ       1
    w_neg_2_0  l1_2_0    1
    w_neg_2_1  OBJ       1
    w_neg_2_1  l1_2_1    1
    MARKER0000  'MARKER'                 'INTORG'
    z_1_0     assign_0  1
    z_1_0     route_l_0_0  100
    z_1_0     loss_1_0_0  -100
    z_1_0     loss_1_1_0  -100
    z_1_0     loss_1_2_0  -100
    z_1_0     loss_1_3_0  -100
    z_1_1     assign_1  1
    z_1_1     route_l_0_1  100
    z_1_1     loss_1_0_1  -100
    z_1_1     loss_1_1_1  -100
    z_1_1     loss_1_2_1  -100
    z_1_1     loss_1_3_1  -100
    z_1_2     assign_2  1
    z_1_2     route_l_0_2  100
    z_1_2     loss_1_0_2  -100
    z_1_2     loss_1_1_2  -100
    z_1_2     loss_1_2_2  -100
    z_1_2     loss_1_3_2  -100
    z_2_0     assign_0  1
    z_2_0     route_r_0_0  -100
    z_2_0     loss_2_0_0  -100
    z_2_0     loss_2_1_0  -100
    z_2_0     loss_2_2_0  -100
    z_2_0     loss_2_3_0  -100
    z_2_1     assign_1  1
    z_2_1     route_r_0_1  -100
    z_2_1     loss_2_0_1  -100
    z_2_1     loss_2_1_1  -100
    z_2_1     loss_2_2_1  -100
    z_2_1     loss_2_3_1  -100
    z_2_2     assign_2  1
    z_2_2     route_r_0_2  -100
    z_2_2     loss_2_0_2  -100
    z_2_2     loss_2_1_2  -100
    z_2_2     loss_2_2_2  -100
    z_2_2     loss_2_3_2  -100
    MARKER0001  'MARKER'                 'INTEND'
    xi_1_0    OBJ       1
    xi_1_0    loss_0_0_0  1
    xi_1_0    loss_0_1_0  1
    xi_1_0    loss_0_2_0  1
    xi_1_0    loss_0_3_0  1
    xi_1_1    OBJ       1
    xi_1_1    loss_0_0_1  1
    xi_1_1    loss_0_1_1  1
    xi_1_1    loss_0_2_1  1
    xi_1_1    loss_0_3_1  1
    xi_1_2    OBJ       1
    xi_1_2    loss_0_0_2  1
    xi_1_2    loss_0_1_2  1
    xi_1_2    loss_0_2_2  1
    xi_1_2    loss_0_3_2  1
    xi_2_0    OBJ       0.5
    xi_2_0    loss_1_0_0  1
    xi_2_0    loss_1_1_0  1
    xi_2_0    loss_1_2_0  1
    xi_2_0    loss_1_3_0  1
    xi_2_0    loss_2_0_0  1
    xi_2_0    loss_2_1_0  1
    xi_2_0    loss_2_2_0  1
    xi_2_0    loss_2_3_0  1
    xi_2_1    OBJ       0.5
    xi_2_1    loss_1_0_1  1
    xi_2_1    loss_1_1_1  1
    xi_2_1    loss_1_2_1  1
    xi_2_1    loss_1_3_1  1
    xi_2_1    loss_2_0_1  1
    xi_2_1    loss_2_1_1  1
    xi_2_1    loss_2_2_1  1
    xi_2_1    loss_2_3_1  1
    xi_2_2    OBJ       0.5
    xi_2_2    loss_1_0_2  1
    xi_2_2    loss_1_1_2  1
    xi_2_2    loss_1_2_2  1
    xi_2_2    loss_1_3_2  1
    xi_2_2    loss_2_0_2  1
    xi_2_2    loss_2_1_2  1
    xi_2_2    loss_2_2_2  1
    xi_2_2    loss_2_3_2  1
    s_0_0     score_0_0  1
    s_0_0     route_l_0_0  1
    s_0_0     route_r_0_0  1
    s_0_0     loss_0_0_0  1
    s_0_0     loss_0_1_0  0.8698915256370021
    s_0_0     loss_0_2_0  0.5
    s_0_0     loss_0_3_0  0.13010847436299786
    s_0_1     score_0_1  1
    s_0_1     route_l_0_1  1
    s_0_1     route_r_0_1  1
    s_0_1     loss_0_0_1  -1
    s_0_1     loss_0_1_1  -0.8698915256370021
    s_0_1     loss_0_2_1  -0.5
    s_0_1     loss_0_3_1  -0.13010847436299786
    s_0_2     score_0_2  1
    s_0_2     route_l_0_2  1
    s_0_2     route_r_0_2  1
    s_0_2     loss_0_0_2  1
    s_0_2     loss_0_1_2  0.8698915256370021
    s_0_2     loss_0_2_2  0.5
    s_0_2     loss_0_3_2  0.13010847436299786
    s_1_0     score_1_0  1
    s_1_0     loss_1_0_0  1
    s_1_0     loss_1_1_0  0.8698915256370021
    s_1_0     loss_1_2_0  0.5
    s_1_0     loss_1_3_0  0.13010847436299786
    s_1_1     score_1_1  1
    s_1_1     loss_1_0_1  -1
    s_1_1     loss_1_1_1  -0.8698915256370021
    s_1_1     loss_1_2_1  -0.5
    s_1_1     loss_1_3_1  -0.13010847436299786
    s_1_2     score_1_2  1
    s_1_2     loss_1_0_2  1
    s_1_2     loss_1_1_2  0.8698915256370021
    s_1_2     loss_1_2_2  0.5
    s_1_2     loss_1_3_2  0.13010847436299786
    s_2_0     score_2_0  1
    s_2_0     loss_2_0_0  1
    s_2_0     loss_2_1_0  0.8698915256370021
    s_2_0     loss_2_2_0  0.5
    s_2_0     loss_2_3_0  0.13010847436299786
    s_2_1     score_2_1  1
    s_2_1     loss_2_0_1  -1
    s_2_1     loss_2_1_1  -0.8698915256370021
    s_2_1     loss_2_2_1  -0.5
    s_2_1     loss_2_3_1  -0.13010847436299786
    s_2_2     score_2_2  1
    s_2_2     loss_2_0_2  1
    s_2_2     loss_2_1_2  0.8698915256370021
    s_2_2     loss_2_2_2  0.5
    s_2_2     loss_2_3_2  0.13010847436299786
RHS
    RHS       assign_0  1
    RHS       assign_1  1
    RHS       assign_2  1
    RHS       route_l_0_0  100
    RHS       route_l_0_1  100
    RHS       route_l_0_2  100
    RHS       route_r_0_0  -99.99999
    RHS       route_r_0_1  -99.99999
    RHS       route_r_0_2  -99.99999
    RHS       loss_0_1_0  0.38659285957265643
    RHS       loss_0_1_1  0.38659285957265643
    RHS       loss_0_1_2  0.38659285957265643
    RHS       loss_0_2_0  0.6931471805599453
    RHS       loss_0_2_1  0.6931471805599453
    RHS       loss_0_2_2  0.6931471805599453
    RHS       loss_0_3_0  0.38659285957265654
    RHS       loss_0_3_1  0.38659285957265654
    RHS       loss_0_3_2  0.38659285957265654
    RHS       loss_1_0_0  -100
    RHS       loss_1_0_1  -100
    RHS       loss_1_0_2  -100
    RHS       loss_1_1_0  -99.61340714042734
    RHS       loss_1_1_1  -99.61340714042734
    RHS       loss_1_1_2  -99.61340714042734
    RHS       loss_1_2_0  -99.30685281944005
    RHS       loss_1_2_1  -99.30685281944005
    RHS       loss_1_2_2  -99.30685281944005
    RHS       loss_1_3_0  -99.61340714042734
    RHS       loss_1_3_1  -99.61340714042734
    RHS       loss_1_3_2  -99.61340714042734
    RHS       loss_2_0_0  -100
    RHS       loss_2_0_1  -100
    RHS       loss_2_0_2  -100
    RHS       loss_2_1_0  -99.61340714042734
    RHS       loss_2_1_1  -99.61340714042734
    RHS       loss_2_1_2  -99.61340714042734
    RHS       loss_2_2_0  -99.30685281944005
    RHS       loss_2_2_1  -99.30685281944005
    RHS       loss_2_2_2  -99.30685281944005
    RHS       loss_2_3_0  -99.61340714042734
    RHS       loss_2_3_1  -99.61340714042734
    RHS       loss_2_3_2  -99.61340714042734
BOUNDS
 FR BND       w_0_0
 FR BND       w_0_1
 FR BND       w_1_0
 FR BND       w_1_1
 FR BND       w_2_0
 FR BND       w_2_1
 FR BND       b_0
 FR BND       b_1
 FR BND       b_2
 BV BND       z_1_0
 BV BND       z_1_1
 BV BND       z_1_2
 BV BND       z_2_0
 BV BND       z_2_1
 BV BND       z_2_2
 FR BND       s_0_0
 FR BND       s_0_1
 FR BND       s_0_2
 FR BND       s_1_0
 FR BND       s_1_1
 FR BND       s_1_2
 FR BND       s_2_0
 FR BND       s_2_1
 FR BND       s_2_2
ENDATA
