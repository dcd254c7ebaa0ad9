$ qconf -Arqs blank-lines.input
