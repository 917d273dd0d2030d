#!/bin/sh
# Writes far more than the output cap; the tail ends with "last line".
i=0
while [ $i -lt 40000 ]; do echo "line $i of filler text"; i=$((i+1)); done
echo "last line"
