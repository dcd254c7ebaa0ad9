$ qconf -sobjl exechost load_scaling NONE
