sgeuser$ qrsub -d 600 -l nosuch=1
