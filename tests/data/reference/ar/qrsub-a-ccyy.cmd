sgeuser$ qrsub -a 202611280549.04 -d 60
