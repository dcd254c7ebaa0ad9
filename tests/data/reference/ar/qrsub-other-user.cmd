sgeuser2$ qrsub -d 600 -N other
