<?xml version = "1.0" encoding="UTF-8" standalone="yes"?>
<CPLEXSolution version="1.2">
 <header
   problemName="model.mps"
   solutionName="incumbent"
   solutionIndex="-1"
   objectiveValue="-21.5"
   solutionTypeValue="3"
   solutionTypeString="primal"
   solutionStatusValue="101"
   solutionStatusString="integer optimal solution"
   solutionMethodString="mip"
   primalFeasible="1"
   dualFeasible="1"
   MIPNodes="0"
   MIPIterations="2"
   writeLevel="1"/>
 <quality
   epInt="1.0000000000000001e-05"
   epRHS="9.9999999999999995e-07"
   maxIntInfeas="0"
   maxPrimalInfeas="0"
   maxX="4"
   maxSlack="5"/>
 <linearConstraints>
  <constraint name="c1" index="0" slack="0"/>
  <constraint name="c2" index="1" slack="0"/>
  <constraint name="c3" index="2" slack="5"/>
  <constraint name="c4" index="3" slack="0"/>
  <constraint name="c5" index="4" slack="3.5"/>
 </linearConstraints>
 <variables>
  <variable name="x" index="0" value="4"/>
  <variable name="y" index="1" value="3"/>
  <variable name="z" index="2" value="1"/>
  <variable name="v" index="3" value="3"/>
  <variable name="w" index="4" value="2"/>
  <variable name="u" index="5" value="0"/>
 </variables>
 <objectiveValues>
  <objective index="0" name="obj" value="-21.5"/>
 </objectiveValues>
</CPLEXSolution>
