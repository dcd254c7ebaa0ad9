sgeuser$ qrsub -d 600 -u @arusers
