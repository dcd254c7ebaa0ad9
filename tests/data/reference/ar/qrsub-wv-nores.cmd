sgeuser$ qrsub -d 600 -w v -pe smp 8
