$ qconf -Arqs ref-unknown-project.input
