$ qconf -Arqs accepted-name-underscore-first.input
