NAME heart16_margot_d1 FREE
ROWS
 N  OBJ
 E  assign_0
 E  assign_1
 E  assign_2
 E  assign_3
 E  assign_4
 E  assign_5
 E  assign_6
 E  assign_7
 E  assign_8
 E  assign_9
 E  assign_10
 E  assign_11
 E  assign_12
 E  assign_13
 E  assign_14
 E  assign_15
 G  hinge_0_0_0
 G  hinge_0_0_1
 G  hinge_0_0_2
 G  hinge_0_0_3
 G  hinge_0_0_4
 G  hinge_0_0_5
 G  hinge_0_0_6
 G  hinge_0_0_7
 G  hinge_0_0_8
 G  hinge_0_0_9
 G  hinge_0_0_10
 G  hinge_0_0_11
 G  hinge_0_0_12
 G  hinge_0_0_13
 G  hinge_0_0_14
 G  hinge_0_0_15
COLUMNS
    w_0_0     hinge_0_0_0  0.0718759055603114
    w_0_0     hinge_0_0_1  1.221890394525294
    w_0_0     hinge_0_0_2  0.6948004204163436
    w_0_0     hinge_0_0_3  -0.5670210327535677
    w_0_0     hinge_0_0_4  -0.9503591957418952
    w_0_0     hinge_0_0_5  -0.4552140685486389
    w_0_0     hinge_0_0_6  1.221890394525294
    w_0_0     hinge_0_0_7  -1.844814909381326
    w_0_0     hinge_0_0_8  0.3274346808858631
    w_0_0     hinge_0_0_9  -0.8225798080791195
    w_0_0     hinge_0_0_10  -0.9663316191997422
    w_0_0     hinge_0_0_11  1.078138583404671
    w_0_0     hinge_0_0_12  -1.078138583404671
    w_0_0     hinge_0_0_13  1.3496697821880697
    w_0_0     hinge_0_0_14  1.3496697821880697
    w_0_0     hinge_0_0_15  -0.0718759055603114
    w_0_1     hinge_0_0_0  0.17240423478702496
    w_0_1     hinge_0_0_1  -0.8840302251845322
    w_0_1     hinge_0_0_2  1.8817738818243361
    w_0_1     hinge_0_0_3  -0.4145037985305068
    w_0_1     hinge_0_0_4  -0.29712219186700045
    w_0_1     hinge_0_0_5  -0.524549054777544
    w_0_1     hinge_0_0_6  0.7593122681045568
    w_0_1     hinge_0_0_7  -1.5883198651655703
    w_0_1     hinge_0_0_8  0.17240423478702496
    w_0_1     hinge_0_0_9  -1.0014118318480385
    w_0_1     hinge_0_0_10  -0.7593122681045568
    w_0_1     hinge_0_0_11  -0.46585825144579085
    w_0_1     hinge_0_0_12  1.815746728076114
    w_0_1     hinge_0_0_13  0.17240423478702496
    w_0_1     hinge_0_0_14  1.6396743180808544
    w_0_1     hinge_0_0_15  0.4145037985305068
    w_0_2     hinge_0_0_0  0.08139479532082927
    w_0_2     hinge_0_0_1  0.38192942419773734
    w_0_2     hinge_0_0_2  0.7450754340906679
    w_0_2     hinge_0_0_3  -0.870298196122713
    w_0_2     hinge_0_0_4  -0.2942734907753058
    w_0_2     hinge_0_0_5  0.36940714799453284
    w_0_2     hinge_0_0_6  -0.895342748529122
    w_0_2     hinge_0_0_7  0.7826422627002815
    w_0_2     hinge_0_0_8  -0.24418438596248782
    w_0_2     hinge_0_0_9  -0.5948081196522139
    w_0_2     hinge_0_0_10  -2.2602708546784127
    w_0_2     hinge_0_0_11  -0.031305690508011255
    w_0_2     hinge_0_0_12  -1.4713674538765291
    w_0_2     hinge_0_0_13  1.3837115204540975
    w_0_2     hinge_0_0_14  1.5339788348925516
    w_0_2     hinge_0_0_15  0.9704764057483489
    w_0_3     hinge_0_0_0  0.36392762228428893
    w_0_3     hinge_0_0_1  -1.3246965451148116
    w_0_3     hinge_0_0_2  -1.8196381114214446
    w_0_3     hinge_0_0_3  0.131013944022344
    w_0_3     hinge_0_0_4  -1.5576102233767566
    w_0_3     hinge_0_0_5  0.625955510328977
    w_0_3     hinge_0_0_6  -0.393041832067032
    w_0_3     hinge_0_0_7  1.0044402375046375
    w_0_3     hinge_0_0_8  -0.45127025163251827
    w_0_3     hinge_0_0_9  -0.393041832067032
    w_0_3     hinge_0_0_10  -0.65506972011172
    w_0_3     hinge_0_0_11  -0.8297549788081787
    w_0_3     hinge_0_0_12  -0.2765849929360596
    w_0_3     hinge_0_0_13  -0.9753260277218944
    w_0_3     hinge_0_0_14  -0.7424123494599494
    w_0_3     hinge_0_0_15  -1.936094950552417
    b_0       hinge_0_0_0  -1
    b_0       hinge_0_0_1  -1
    b_0       hinge_0_0_2  1
    b_0       hinge_0_0_3  -1
    b_0       hinge_0_0_4  -1
    b_0       hinge_0_0_5  1
    b_0       hinge_0_0_6  -1
    b_0       hinge_0_0_7  -1
    b_0       hinge_0_0_8  -1
    b_0       hinge_0_0_9  -1
    b_0       hinge_0_0_10  1
    b_0       hinge_0_0_11  1
    b_0       hinge_0_0_12  -1
    b_0       hinge_0_0_13  -1
    b_0       hinge_0_0_14  -1
    b_0       hinge_0_0_15  1
    MARKER0000  'MARKER'                 'INTORG'
    z_0_0     assign_0  1
    z_0_1     assign_1  1
    z_0_2     assign_2  1
    z_0_3     assign_3  1
    z_0_4     assign_4  1
    z_0_5     assign_5  1
    z_0_6     assign_6  1
    z_0_7     assign_7  1
    z_0_8     assign_8  1
    z_0_9     assign_9  1
    z_0_10    assign_10  1
    z_0_11    assign_11  1
    z_0_12    assign_12  1
    z_0_13    assign_13  1
    z_0_14    assign_14  1
    z_0_15    assign_15  1
    MARKER0001  'MARKER'                 'INTEND'
    xi_1_0    OBJ       1
    xi_1_0    hinge_0_0_0  1
    xi_1_1    OBJ       1
    xi_1_1    hinge_0_0_1  1
    xi_1_2    OBJ       1
    xi_1_2    hinge_0_0_2  1
    xi_1_3    OBJ       1
    xi_1_3    hinge_0_0_3  1
    xi_1_4    OBJ       1
    xi_1_4    hinge_0_0_4  1
    xi_1_5    OBJ       1
    xi_1_5    hinge_0_0_5  1
    xi_1_6    OBJ       1
    xi_1_6    hinge_0_0_6  1
    xi_1_7    OBJ       1
    xi_1_7    hinge_0_0_7  1
    xi_1_8    OBJ       1
    xi_1_8    hinge_0_0_8  1
    xi_1_9    OBJ       1
    xi_1_9    hinge_0_0_9  1
    xi_1_10   OBJ       1
    xi_1_10   hinge_0_0_10  1
    xi_1_11   OBJ       1
    xi_1_11   hinge_0_0_11  1
    xi_1_12   OBJ       1
    xi_1_12   hinge_0_0_12  1
    xi_1_13   OBJ       1
    xi_1_13   hinge_0_0_13  1
    xi_1_14   OBJ       1
    xi_1_14   hinge_0_0_14  1
    xi_1_15   OBJ       1
    xi_1_15   hinge_0_0_15  1
RHS
    RHS       assign_0  1
    RHS       assign_1  1
    RHS       assign_2  1
    RHS       assign_3  1
    RHS       assign_4  1
    RHS       assign_5  1
    RHS       assign_6  1
    RHS       assign_7  1
    RHS       assign_8  1
    RHS       assign_9  1
    RHS       assign_10  1
    RHS       assign_11  1
    RHS       assign_12  1
    RHS       assign_13  1
    RHS       assign_14  1
    RHS       assign_15  1
    RHS       hinge_0_0_0  1
    RHS       hinge_0_0_1  1
    RHS       hinge_0_0_2  1
    RHS       hinge_0_0_3  1
    RHS       hinge_0_0_4  1
    RHS       hinge_0_0_5  1
    RHS       hinge_0_0_6  1
    RHS       hinge_0_0_7  1
    RHS       hinge_0_0_8  1
    RHS       hinge_0_0_9  1
    RHS       hinge_0_0_10  1
    RHS       hinge_0_0_11  1
    RHS       hinge_0_0_12  1
    RHS       hinge_0_0_13  1
    RHS       hinge_0_0_14  1
    RHS       hinge_0_0_15  1
BOUNDS
 FR BND       w_0_0
 FR BND       w_0_1
 FR BND       w_0_2
 FR BND       w_0_3
 FR BND       b_0
 BV BND       z_0_0
 BV BND       z_0_1
 BV BND       z_0_2
 BV BND       z_0_3
 BV BND       z_0_4
 BV BND       z_0_5
 BV BND       z_0_6
 BV BND       z_0_7
 BV BND       z_0_8
 BV BND       z_0_9
 BV BND       z_0_10
 BV BND       z_0_11
 BV BND       z_0_12
 BV BND       z_0_13
 BV BND       z_0_14
 BV BND       z_0_15
QUADOBJ
    w_0_0     w_0_0     1
    w_0_1     w_0_1     1
    w_0_2     w_0_2     1
    w_0_3     w_0_3     1
ENDATA
