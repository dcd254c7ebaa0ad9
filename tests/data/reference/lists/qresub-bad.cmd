qresub -x 235
