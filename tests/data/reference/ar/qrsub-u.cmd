sgeuser$ qrsub -d 600 -u sgeuser2,sgeuser
