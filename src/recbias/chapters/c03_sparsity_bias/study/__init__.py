"""The computations of chapter 3, one module per experiment of the page:

* :mod:`.theory_check`: measured random precision against Eq. 4 and Eq. 5;
* :mod:`.sweeps`: the runs of the sweeps of the papers' Fig. 4 (test ratings removed, target sets grown);
* :mod:`.fits`: their bootstrap statistics, fitted lines, elasticities and the stability of the order of systems;
* :mod:`.lift`: P@n and its lift over random, ``P@n / rho``, across datasets and designs.
"""
