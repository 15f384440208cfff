#!/bin/sh
# Needs lib/ (mvn -f pom.xml.txt dependency:copy-dependencies -DoutputDirectory=lib) and FrameworkZoo.java (this folder's FrameworkZoo.java.txt renamed).
# capture.sh JDKBIN TAG: run FrameworkZoo 70 s; once every server has taken
# load (the dump shows a Vert.x worker, a JDK HttpServer pool thread and the
# gRPC client), take two jcmd Thread.print dumps 3 s apart and every
# thread's kernel name (tid and /proc/PID/task/TID/comm).
J=$1; n=$2
(timeout 150 nice -n 15 $J/java -Dlogback.configurationFile=$(pwd)/logback.xml -cp 'lib/*' FrameworkZoo.java 70000 > run$n.out 2>&1) &
sleep 10
P=$(for p in $(pgrep -f "FrameworkZoo.java 70000"); do readlink /proc/$p/exe | grep -q '/java$' && echo $p; done | head -1)
for i in $(seq 1 20); do
  $J/jcmd $P Thread.print > probe.txt 2>/dev/null
  if grep -q '"vert.x-worker-thread' probe.txt && grep -q '"pool-.*-thread' probe.txt && grep -q '"grpc-client' probe.txt && grep -q '"XNIO-1 task' probe.txt; then break; fi
  sleep 2
done
sleep 2
$J/jcmd $P Thread.print > fw$n-1.txt
for t in /proc/$P/task/*; do echo "$(basename $t)	$(cat $t/comm)"; done > comm$n.tsv
sleep 3
$J/jcmd $P Thread.print > fw$n-2.txt
wait
