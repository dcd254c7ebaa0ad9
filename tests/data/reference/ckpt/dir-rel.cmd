$ qconf -Ackpt dir-rel.input
