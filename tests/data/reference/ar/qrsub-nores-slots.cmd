sgeuser$ qrsub -d 600 -pe smp 8
