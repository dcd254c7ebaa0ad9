$ qconf -Aprj Aprj-missing-several.input
