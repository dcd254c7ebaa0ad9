sgeuser$ qrsub -d 60 -pe smp
