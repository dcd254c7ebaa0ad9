qping vm 6444 qmaster 1   (interrupted after 3 s: timeout -s INT 3)
