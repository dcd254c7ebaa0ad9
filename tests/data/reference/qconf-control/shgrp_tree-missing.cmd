$ qconf -shgrp_tree @nosuch
