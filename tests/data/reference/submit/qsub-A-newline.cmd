$ qsub -h -b y -A $'a\nb' /bin/true
