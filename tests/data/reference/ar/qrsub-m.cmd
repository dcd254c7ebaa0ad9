sgeuser$ qrsub -d 600 -m be -M sgeuser@localhost
