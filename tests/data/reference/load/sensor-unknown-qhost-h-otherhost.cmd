$ qhost -h otherhost -F
