import streamlit as st
st.title("Trivial")
@st.fragment
def f():
    v = st.slider("value", 0, 100, 50)
    for i in range(90):
        st.markdown(f"static line {i}")
    st.write(v)
f()
