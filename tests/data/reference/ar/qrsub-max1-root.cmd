root$ qrsub -d 600 -N rootar
