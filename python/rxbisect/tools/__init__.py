"""Calculators and trace tools that answer without a study: ring sizing, the dark-packet
bound, pcap statistics and the synthetic trace generator."""
