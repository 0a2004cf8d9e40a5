#!/usr/bin/env bash
# alternating before/after jars, same session; logs load before each run
out=/work/p1/p1-p3-p4-session6.txt
: > $out
for round in 1 2; do
  for jar in before-boundary-916e48a.jar after-9d09247.jar; do
    for b in "SendPathPublicApi -p names=hashed -p impl=kmeta -t 1" "ApplySmallChange -p partitions=100000 -p impl=kmeta -p names=hashed" "ApplyFullResponse -p partitions=100000 -p impl=kmeta -p names=hashed"; do
      echo "### round $round jar $jar bench $b load $(cut -d' ' -f1-3 /proc/loadavg) $(date -u +%H:%M:%S)" >> $out
      java -jar $jar $b -f 1 -wi 3 -i 5 -w 5s -r 5s -prof gc 2>&1 | grep -E "^Benchmark|^(SendPath|ApplySmall|ApplyFull)[A-Za-z.]*( |:gc.alloc.rate.norm )" >> $out
    done
  done
done
echo DONE >> $out
