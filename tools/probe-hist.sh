S="bash gpu-run.sh node dist/src/cli/main.js"
d=$(mktemp -d)
for a in "--vectors 32768 --fields 16384" "--sparse --vectors 32768 --fields 16384" "--way 3 --vectors 1024 --fields 16384"; do
  for h in "" "--histograms $d/h.tsv --force" "" "--histograms $d/h.tsv --force"; do
    echo "$a $h: $($S run --backend webgpu --threads 16 $a $h --json | grep -o '"computeSeconds":[0-9.]*' | tr '\n' ' ')"
  done
done
$S run --backend webgpu --threads 16 --way 3 --vectors 300 --fields 4096 --histograms $d/g.tsv --force --json > /dev/null; $S run --backend cpu --threads 16 --way 3 --vectors 300 --fields 4096 --histograms $d/c.tsv --force --json >/dev/null; cmp $d/g.tsv $d/c.tsv && echo "3-way histogram webgpu = cpu"
