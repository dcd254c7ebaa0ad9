$ qconf -Ackpt dir-NONE.input
