NAME olct_univariate FREE
ROWS
 N  OBJ
 E  assign_0
 E  assign_1
 E  assign_2
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
 G  loss_1_0_0
 G  loss_1_0_1
 G  loss_1_0_2
 G  loss_1_1_0
 G  loss_1_1_1
 G  loss_1_1_2
 G  loss_2_0_0
 G  loss_2_0_1
 G  loss_2_0_2
 G  loss_2_1_0
 G  loss_2_1_1
 G  loss_2_1_2
 E  l1_0_0
 E  l1_0_1
 E  l1_1_0
 E  l1_1_1
 E  l1_2_0
 E  l1_2_1
 L  l0_up_0_0
 L  l0_up_0_1
 L  l0_up_1_0
 L  l0_up_1_1
 L  l0_up_2_0
 L  l0_up_2_1
 G  l0_lo_0_0
 G  l0_lo_0_1
 G  l0_lo_1_0
 G  l0_lo_1_1
 G  l0_lo_2_0
 G  l0_lo_2_1
 L  budget_0
 L  budget_1
 L  budget_2
COLUMNS
    w_0_0     route_l_0_0  -0.11624763874381934
    w_0_0     route_l_0_1  1.278724026182012
    w_0_0     route_l_0_2  -1.162476387438193
    w_0_0     route_r_0_0  -0.11624763874381934
    w_0_0     route_r_0_1  1.278724026182012
    w_0_0     route_r_0_2  -1.162476387438193
    w_0_0     loss_0_0_0  -0.11624763874381934
    w_0_0     loss_0_0_1  -1.278724026182012
    w_0_0     loss_0_0_2  -1.162476387438193
    w_0_0     loss_0_1_0  -0.05812381937190967
    w_0_0     loss_0_1_1  -0.639362013091006
    w_0_0     loss_0_1_2  -0.5812381937190965
    w_0_0     l1_0_0    1
    w_0_0     l0_up_0_0  1
    w_0_0     l0_lo_0_0  1
    w_0_1     route_l_0_0  -1.3074028933658497
    w_0_1     route_l_0_1  0.1867718419094071
    w_0_1     route_l_0_2  1.1206310514564426
    w_0_1     route_r_0_0  -1.3074028933658497
    w_0_1     route_r_0_1  0.1867718419094071
    w_0_1     route_r_0_2  1.1206310514564426
    w_0_1     loss_0_0_0  -1.3074028933658497
    w_0_1     loss_0_0_1  -0.1867718419094071
    w_0_1     loss_0_0_2  1.1206310514564426
    w_0_1     loss_0_1_0  -0.6537014466829248
    w_0_1     loss_0_1_1  -0.09338592095470355
    w_0_1     loss_0_1_2  0.5603155257282213
    w_0_1     l1_0_1    1
    w_0_1     l0_up_0_1  1
    w_0_1     l0_lo_0_1  1
    w_1_0     loss_1_0_0  -0.11624763874381934
    w_1_0     loss_1_0_1  -1.278724026182012
    w_1_0     loss_1_0_2  -1.162476387438193
    w_1_0     loss_1_1_0  -0.05812381937190967
    w_1_0     loss_1_1_1  -0.639362013091006
    w_1_0     loss_1_1_2  -0.5812381937190965
    w_1_0     l1_1_0    1
    w_1_0     l0_up_1_0  1
    w_1_0     l0_lo_1_0  1
    w_1_1     loss_1_0_0  -1.3074028933658497
    w_1_1     loss_1_0_1  -0.1867718419094071
    w_1_1     loss_1_0_2  1.1206310514564426
    w_1_1     loss_1_1_0  -0.6537014466829248
    w_1_1     loss_1_1_1  -0.09338592095470355
    w_1_1     loss_1_1_2  0.5603155257282213
    w_1_1     l1_1_1    1
    w_1_1     l0_up_1_1  1
    w_1_1     l0_lo_1_1  1
    w_2_0     loss_2_0_0  -0.11624763874381934
    w_2_0     loss_2_0_1  -1.278724026182012
    w_2_0     loss_2_0_2  -1.162476387438193
    w_2_0     loss_2_1_0  -0.05812381937190967
    w_2_0     loss_2_1_1  -0.639362013091006
    w_2_0     loss_2_1_2  -0.5812381937190965
    w_2_0     l1_2_0    1
    w_2_0     l0_up_2_0  1
    w_2_0     l0_lo_2_0  1
    w_2_1     loss_2_0_0  -1.3074028933658497
    w_2_1     loss_2_0_1  -0.1867718419094071
    w_2_1     loss_2_0_2  1.1206310514564426
    w_2_1     loss_2_1_0  -0.6537014466829248
    w_2_1     loss_2_1_1  -0.09338592095470355
    w_2_1     loss_2_1_2  0.5603155257282213
    w_2_1     l1_2_1    1
    w_2_1     l0_up_2_1  1
    w_2_1     l0_lo_2_1  1
    b_0       route_l_0_0  1
    b_0       route_l_0_1  1
    b_0       route_l_0_2  1
    b_0       route_r_0_0  1
    b_0       route_r_0_1  1
    b_0       route_r_0_2  1
    b_0       loss_0_0_0  1
    b_0       loss_0_0_1  -1
    b_0       loss_0_0_2  1
    b_0       loss_0_1_0  0.5
    b_0       loss_0_1_1  -0.5
    b_0       loss_0_1_2  0.5
    b_1       loss_1_0_0  1
    b_1       loss_1_0_1  -1
    b_1       loss_1_0_2  1
    b_1       loss_1_1_0  0.5
    b_1       loss_1_1_1  -0.5
    b_1       loss_1_1_2  0.5
    b_2       loss_2_0_0  1
    b_2       loss_2_0_1  -1
    b_2       loss_2_0_2  1
    b_2       loss_2_1_0  0.5
    b_2       loss_2_1_1  -0.5
    b_2       loss_2_1_2  0.5
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
    delta_0_0  l0_up_0_0  -100
    delta_0_0  l0_lo_0_0  100
    delta_0_0  budget_0  1
    delta_0_1  l0_up_0_1  -100
    delta_0_1  l0_lo_0_1  100
    delta_0_1  budget_0  1
    delta_1_0  l0_up_1_0  -100
    delta_1_0  l0_lo_1_0  100
    delta_1_0  budget_1  1
    delta_1_1  l0_up_1_1  -100
    delta_1_1  l0_lo_1_1  100
    delta_1_1  budget_1  1
    delta_2_0  l0_up_2_0  -100
    delta_2_0  l0_lo_2_0  100
    delta_2_0  budget_2  1
    delta_2_1  l0_up_2_1  -100
    delta_2_1  l0_lo_2_1  100
    delta_2_1  budget_2  1
    z_1_0     assign_0  1
    z_1_0     route_l_0_0  100
    z_1_0     loss_1_0_0  -100
    z_1_0     loss_1_1_0  -100
    z_1_1     assign_1  1
    z_1_1     route_l_0_1  100
    z_1_1     loss_1_0_1  -100
    z_1_1     loss_1_1_1  -100
    z_1_2     assign_2  1
    z_1_2     route_l_0_2  100
    z_1_2     loss_1_0_2  -100
    z_1_2     loss_1_1_2  -100
    z_2_0     assign_0  1
    z_2_0     route_r_0_0  -100
    z_2_0     loss_2_0_0  -100
    z_2_0     loss_2_1_0  -100
    z_2_1     assign_1  1
    z_2_1     route_r_0_1  -100
    z_2_1     loss_2_0_1  -100
    z_2_1     loss_2_1_1  -100
    z_2_2     assign_2  1
    z_2_2     route_r_0_2  -100
    z_2_2     loss_2_0_2  -100
    z_2_2     loss_2_1_2  -100
    MARKER0001  'MARKER'                 'INTEND'
    xi_1_0    OBJ       1
    xi_1_0    loss_0_0_0  1
    xi_1_0    loss_0_1_0  1
    xi_1_1    OBJ       1
    xi_1_1    loss_0_0_1  1
    xi_1_1    loss_0_1_1  1
    xi_1_2    OBJ       1
    xi_1_2    loss_0_0_2  1
    xi_1_2    loss_0_1_2  1
    xi_2_0    OBJ       0.5
    xi_2_0    loss_1_0_0  1
    xi_2_0    loss_1_1_0  1
    xi_2_0    loss_2_0_0  1
    xi_2_0    loss_2_1_0  1
    xi_2_1    OBJ       0.5
    xi_2_1    loss_1_0_1  1
    xi_2_1    loss_1_1_1  1
    xi_2_1    loss_2_0_1  1
    xi_2_1    loss_2_1_1  1
    xi_2_2    OBJ       0.5
    xi_2_2    loss_1_0_2  1
    xi_2_2    loss_1_1_2  1
    xi_2_2    loss_2_0_2  1
    xi_2_2    loss_2_1_2  1
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
    RHS       loss_0_1_0  0.6931471805599453
    RHS       loss_0_1_1  0.6931471805599453
    RHS       loss_0_1_2  0.6931471805599453
    RHS       loss_1_0_0  -100
    RHS       loss_1_0_1  -100
    RHS       loss_1_0_2  -100
    RHS       loss_1_1_0  -99.30685281944005
    RHS       loss_1_1_1  -99.30685281944005
    RHS       loss_1_1_2  -99.30685281944005
    RHS       loss_2_0_0  -100
    RHS       loss_2_0_1  -100
    RHS       loss_2_0_2  -100
    RHS       loss_2_1_0  -99.30685281944005
    RHS       loss_2_1_1  -99.30685281944005
    RHS       loss_2_1_2  -99.30685281944005
    RHS       budget_0  1
    RHS       budget_1  1
    RHS       budget_2  1
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
 BV BND       delta_0_0
 BV BND       delta_0_1
 BV BND       delta_1_0
 BV BND       delta_1_1
 BV BND       delta_2_0
 BV BND       delta_2_1
 BV BND       z_1_0
 BV BND       z_1_1
 BV BND       z_1_2
 BV BND       z_2_0
 BV BND       z_2_1
 BV BND       z_2_2
ENDATA
