sgeuser$ qrsub -d abc
