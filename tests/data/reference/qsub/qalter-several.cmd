$ qalter -o /tmp/o -A a3 -r n -j y 291
