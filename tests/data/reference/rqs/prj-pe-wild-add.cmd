$ qconf -Arqs prj-pe-wild.input
