$ qconf -Ackpt dir-none.input
