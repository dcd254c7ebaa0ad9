$ qconf -Arqs accepted-limit-empty-to.input
