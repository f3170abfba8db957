"""The PAMELA language (paper 004, section 2.1): its syntax tree, the parser that builds it from
text, normalisation by substitution into the compiler's input, and compiled expressions printed
back as PAMELA text."""
