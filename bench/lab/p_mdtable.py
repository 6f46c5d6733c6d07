import streamlit as st, numpy as np
st.title("Trivial")
@st.fragment
def f():
    v = st.slider("value", 0, 100, 50)
    a = np.random.default_rng(v).random((6, 5))
    st.markdown("| a | b | c | d | e |\n|---|---|---|---|---|\n" + "\n".join("| " + " | ".join(f"{x:.3f}" for x in r) + " |" for r in a))
    st.write(v)
f()
