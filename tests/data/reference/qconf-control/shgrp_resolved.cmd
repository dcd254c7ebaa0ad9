$ qconf -shgrp_resolved @top
