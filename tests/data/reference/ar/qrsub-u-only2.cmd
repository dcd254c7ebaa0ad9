sgeuser2$ qrsub -d 600 -u sgeuser2 -N only2
