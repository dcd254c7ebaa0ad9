$ qconf -Ackpt dir-relative.input
