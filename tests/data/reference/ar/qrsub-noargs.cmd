sgeuser$ qrsub
