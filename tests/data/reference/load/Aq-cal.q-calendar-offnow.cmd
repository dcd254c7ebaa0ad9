$ qconf -Aq Aq-cal.q-calendar-offnow.input
