$ qconf -shgrp_tree @top
