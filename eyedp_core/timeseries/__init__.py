"""Private feature time series (Bozkir et al., Steil et al.): LPA, FPA, CFPA, DCFPA and around them."""
