$ qconf -Arqs dyn-sum.input
