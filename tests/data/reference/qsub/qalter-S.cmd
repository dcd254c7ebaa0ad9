$ qalter -S /bin/bash 291
