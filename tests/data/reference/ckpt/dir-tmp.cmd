$ qconf -Ackpt dir-tmp.input
