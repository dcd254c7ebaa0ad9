sgeuser$ qrsub -d 600 -pe nosuchpe 1
