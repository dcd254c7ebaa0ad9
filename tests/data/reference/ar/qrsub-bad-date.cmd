sgeuser$ qrsub -a 2025xx -d 600
