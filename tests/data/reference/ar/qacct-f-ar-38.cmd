root$ qacct -f /work/wt-ar/tests/data/reference/ar/accounting-bench.txt -ar 38
